/* rsp: splitting option-file text into arguments (see rsp.h for the two syntaxes).
 * Expansion in place, nesting and the depth limit live in argv.c. */
#include "rsp.h"
#include "strbuf.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

void rsp_split(const char *text, size_t len, enum rsp_syntax syntax, struct strvec *out)
{
    struct strbuf arg = STRBUF_INIT;
    int in_arg = 0;
    char quote = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\\' && i + 1 < len) {
            sb_addc(&arg, text[++i]);
            in_arg = 1;
            continue;
        }
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                sb_addc(&arg, c);
            continue;
        }
        if (c == '"' || (c == '\'' && syntax == RSP_GCC)) {
            quote = c;
            in_arg = 1;
            continue;
        }
        if (is_space(c)) {
            if (in_arg)
                sv_push_owned(out, sb_detach(&arg));
            in_arg = 0;
            continue;
        }
        sb_addc(&arg, c);
        in_arg = 1;
    }
    if (in_arg)
        sv_push_owned(out, sb_detach(&arg));
    sb_release(&arg);
}
