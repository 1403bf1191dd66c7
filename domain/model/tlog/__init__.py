"""The host's Merkle log in the C2SP formats: tree and proofs, tiles, checkpoints, witness
cosignatures and their protocol, trust policies and offline proofs."""
