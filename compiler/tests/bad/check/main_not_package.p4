// 'main' instantiates a package, not an extern.
#include <core.p4>
extern Widget {
    Widget();
}
Widget() main;
