"""Built-in backends: one module per library; every library quirk lives in exactly one of them."""
