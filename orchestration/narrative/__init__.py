"""An optional language model's prose for the reports, checked against the warehouse."""
