// libpq, for the PostgreSQL peers of the benchmark (Debian: apt-get install libpq-dev).
// Reached only through the `Postgres` trait.
#include <libpq-fe.h>
