#ifndef MODELGEN_CSQLITE_SHIM_H
#define MODELGEN_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type modelgen_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// `sqlite3_config` is variadic; this wrapper selects single-threaded-per-connection mode.
static inline int modelgen_sqlite_config_multithread(void) {
    return sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
}

#endif
