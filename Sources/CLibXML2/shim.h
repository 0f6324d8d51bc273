#ifndef MODELGEN_CLIBXML2_SHIM_H
#define MODELGEN_CLIBXML2_SHIM_H

// libxml2's headers pull in ICU when it is enabled, which clashes with the ICU that Foundation
// ships; the parser never needs ICU, so switch it off before anything else is included.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/// `xmlFree` is a C global function pointer; Swift 6 rejects it as shared mutable state.
static inline void modelgen_xmlFree(void *pointer) {
    xmlFree(pointer);
}

/// A structured error handler that ignores everything: the caller reads the last error from the
/// parser context instead of letting libxml2 print to stderr.
static inline void modelgen_ignoreStructuredError(void *userData, xmlErrorPtr error) {
    (void)userData;
    (void)error;
}

static inline void modelgen_silenceGenericErrors(void *userData, const char *message, ...) {
    (void)userData;
    (void)message;
}

/// Silences libxml2's global error output for this thread.
static inline void modelgen_installQuietErrorHandlers(void) {
    xmlSetGenericErrorFunc(NULL, modelgen_silenceGenericErrors);
    xmlSetStructuredErrorFunc(NULL, modelgen_ignoreStructuredError);
}

#endif
