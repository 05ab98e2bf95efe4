// 'main' instantiates a package, not an extern (an instance of one is refused).
#include <core.p4>
extern Widget {
    Widget();
}
Widget() main;
