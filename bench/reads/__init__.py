"""Reads that cost what they return: a campaign's load and audit, reads as the store grows."""
