table t { actions = { } }
