"""Visitor base for passes over the AST: `visit_<NodeClass>` dispatch with a generic fallback."""
from __future__ import annotations


class Visitor:
    """Subclasses define visit_<Node>(node, *args); nodes without one go to generic_visit."""

    _dispatch_cache: dict = {}

    def visit(self, node, *args):
        cls = type(node)
        key = (type(self), cls)
        meth_name = Visitor._dispatch_cache.get(key)
        if meth_name is None:
            meth_name = "visit_" + cls.__name__
            if not hasattr(self, meth_name):
                for base in cls.__mro__[1:]:
                    if hasattr(self, "visit_" + base.__name__):
                        meth_name = "visit_" + base.__name__
                        break
                else:
                    meth_name = "generic_visit"
            Visitor._dispatch_cache[key] = meth_name
        return getattr(self, meth_name)(node, *args)

    def dispatch(self, prefix: str, node, *args):
        """Named-pass dispatch: calls <prefix>_<NodeClass> (or of a base class), else <prefix>_default."""
        for cls in type(node).__mro__:
            meth = getattr(self, f"{prefix}_{cls.__name__}", None)
            if meth is not None:
                return meth(node, *args)
        return getattr(self, f"{prefix}_default")(node, *args)

    def generic_visit(self, node, *args):
        for child in node.children():
            self.visit(child, *args)
