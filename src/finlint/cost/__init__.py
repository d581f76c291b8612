"""Cost calculator: a dollar figure with its basis on every finding that can be priced."""
