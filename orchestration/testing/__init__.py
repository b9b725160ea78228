"""Stand-ins for the outside world (GitHub, a language model, faults) for the demo and
tests; shipped, since `prweekly demo` and `prweekly emulator` use them."""
