"""After the rules: in-source suppressions, baselines of known findings, the PR view over a git
ref, and the one atomic writer every report and baseline file goes through."""
