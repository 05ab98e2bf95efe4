// A package's type variables are bound by its arguments; a default value binds them only
// with types of its own: `Pipe() main`, whose default `Empty<H>()` is written with H,
// leaves H unbound (p4c: 'could not infer a type for variable H'), reported at the
// instance. Given explicitly (`Pipe<meta_t>()`) H is bound, a default of fixed types
// (`Real()`) binds it, and one that only an @optional parameter left out mentions is a
// don't-care (TNA's `Switch(pipe)`).
#include <core.p4>
struct meta_t { bit<8> f; }
control Empty<H>(inout H hdr, inout meta_t meta) { apply { } }
control Stage<H>(inout H hdr, inout meta_t meta);
control Real(inout meta_t hdr, inout meta_t meta) { apply { } }
package Pipe<H>(Stage<H> s = Empty<H>());
package Fixed<H>(Stage<H> s = Real());
package Two<A, B>(Stage<A> s, @optional Stage<B> t);
Pipe<meta_t>() fine;
Fixed() also_fine;
Two(Real()) fine_too;
Pipe() main;
