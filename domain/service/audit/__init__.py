"""The audit: re-checking a campaign's log, and a signed checkpoint against it.

``stored`` audits the stored events (the hash chain, every stored byte, every revealed server
roll), ``resume`` from a point the verifier holds, ``public`` from the public events alone (a
bundle, a stranger's copy); ``checkpoints`` checks a signed checkpoint against a log. Below them,
``rolls`` verifies the server rolls, ``read`` reads a stored event for the audit (the fast path
and the exact one), and ``history`` gathers the time travel an audit reports.
"""
