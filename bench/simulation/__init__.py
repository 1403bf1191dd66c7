"""Many tables at realistic rates on one PostgreSQL server: where it stops being enough."""
