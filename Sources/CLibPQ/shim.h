#ifndef MODELGEN_CLIBPQ_SHIM_H
#define MODELGEN_CLIBPQ_SHIM_H

#include <libpq-fe.h>

/// The diagnostic field codes are character literals, which Swift does not import.
static inline int modelgen_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int modelgen_pg_diag_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int modelgen_pg_diag_table(void) { return PG_DIAG_TABLE_NAME; }
static inline int modelgen_pg_diag_constraint(void) { return PG_DIAG_CONSTRAINT_NAME; }
static inline int modelgen_pg_diag_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }

#endif
