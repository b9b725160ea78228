"""A group of repositories and its weekly report: the group marts read, worded, published, sent."""
