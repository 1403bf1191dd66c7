"""Transparency log: the host's RFC 6962 Merkle tree, its tiles and its C2SP checkpoints (pure)."""
