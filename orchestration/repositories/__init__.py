"""The registered repositories (repositories.yml): each one's source, targets and settings."""
