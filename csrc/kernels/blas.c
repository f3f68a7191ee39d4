/* blas.c - the BLAS phase of start-up: which BLIS the build linked and which kernel set it runs.
 *
 * The matrix products themselves arrive with the CPU kernels; this file owns the link to BLIS so
 * that the init report and pytensor.has_blis tell the truth about the build. Without BLIS
 * (PT_HAVE_BLIS unset) the phase reports why and the portable kernels will serve.
 */
#include <stdio.h>

#include "internal.h"

#ifdef PT_HAVE_BLIS
#include <blis.h>
#endif

pt_status pt_blas_init(int64_t *count, const char **detail)
{
#ifdef PT_HAVE_BLIS
    static char line[128];
    arch_t arch = bli_arch_query_id();
    snprintf(line, sizeof line, "BLIS %s, %s kernels", bli_info_get_version_str(),
             bli_arch_string(arch));
    *detail = line;
    *count = 1;
    return pt_config_set("blis", line);
#else
    *detail = "not found at build time (portable kernels serve)";
    *count = 0;
    return pt_config_set("blis", "no");
#endif
}
