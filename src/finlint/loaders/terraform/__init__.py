"""Terraform: HCL configurations (a DirectoryLoader) and ``terraform show -json`` plans (a
DocumentLoader).

``loader`` loads a directory (files, tfvars, modules, embedded documents); ``hcl`` parses HCL
with line numbers; ``eval`` evaluates expressions; ``mapping`` turns resources into IR records
(shared by the HCL and plan loaders); ``plan`` reads plan JSON. This ``__init__`` imports
nothing, so the plan loader (tried on every JSON document) never pulls in python-hcl2.
"""
