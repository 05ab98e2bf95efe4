"""p4switch-cli: simple_switch_CLI's command language over P4Runtime (the p4rt library)."""
