"""The extract stage: merged pull requests from a source into the lake, week by week."""
