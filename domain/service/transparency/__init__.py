"""The host's transparency log: the integrator that builds its Merkle tree from the store's
events, the publisher that signs its checkpoints, and their submission to witnesses."""
