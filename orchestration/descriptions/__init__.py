"""What a PR's own description says, read by structure: the change sentence, measured impact
claims and caveats, computed by one SQL function (`read_description`, sql/functions.yml)."""
