"""PostgreSQL: several workers against SQLite, contention, a roll's CPU and round trips."""
