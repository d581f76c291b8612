"""Domain knowledge defined once and used by loaders, rules, linking and ``finlint cost``: the
instance catalog and Kubernetes quantities."""
