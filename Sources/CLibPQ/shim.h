// libpq, PostgreSQL's C client library (Debian: libpq-dev; Homebrew: libpq).
// Reached only through the `Postgres` package trait.
#include <libpq-fe.h>
