// SQLite's C API for the benchmark's peer (Debian: apt-get install libsqlite3-dev).
#include <sqlite3.h>
