"""The model: the games' rules, the campaign aggregate, the command engine and its values.

No I/O and no store: everything here decides from what it is given (a state, house rules, a dice
source) and records the outcome as events. The layers above are ``domain.storage`` (the store's
adapters) and ``domain.service`` (the application services); docs/architecture.md draws them.
"""
