"""Suggested edits where reviewers are: pull-request reviews (GitHub) and merge-request
discussions (GitLab) built from a JSON report's fixes. Network only from ``finlint suggest``."""
