"""The warehouse: a build's session, the model assets, publishing, and which weeks to rebuild."""
