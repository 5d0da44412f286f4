/* rsp: splitting option-file text into arguments (see rsp.h for the two syntaxes).
 * Expansion in place, nesting and the depth limit live in argv.c. */
#include "rsp.h"
#include "strbuf.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void split_msvc(const char *text, size_t len, struct strvec *out)
{
    struct strbuf arg = STRBUF_INIT;
    int in_arg = 0, quoted = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\\') {
            size_t n = 0;
            while (i < len && text[i] == '\\')
                n++, i++;
            if (i < len && text[i] == '"') {
                for (size_t k = 0; k < n / 2; k++)
                    sb_addc(&arg, '\\');
                if (n % 2)
                    sb_addc(&arg, '"');
                else
                    quoted = !quoted;
            } else {
                for (size_t k = 0; k < n; k++)
                    sb_addc(&arg, '\\');
                i--; /* the character after the backslashes is read next round */
            }
            in_arg = 1;
            continue;
        }
        if (c == '"') {
            if (quoted && i + 1 < len && text[i + 1] == '"') {
                sb_addc(&arg, '"');
                i++;
            } else {
                quoted = !quoted;
            }
            in_arg = 1;
            continue;
        }
        if (!quoted && is_space(c)) {
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

static void add_utf8(struct strbuf *out, unsigned long cp)
{
    if (cp < 0x80) {
        sb_addc(out, (char)cp);
    } else if (cp < 0x800) {
        sb_addc(out, (char)(0xC0 | (cp >> 6)));
        sb_addc(out, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        sb_addc(out, (char)(0xE0 | (cp >> 12)));
        sb_addc(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_addc(out, (char)(0x80 | (cp & 0x3F)));
    } else {
        sb_addc(out, (char)(0xF0 | (cp >> 18)));
        sb_addc(out, (char)(0x80 | ((cp >> 12) & 0x3F)));
        sb_addc(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
        sb_addc(out, (char)(0x80 | (cp & 0x3F)));
    }
}

void rsp_msvc_text(const char *text, size_t len, struct strbuf *out)
{
    const unsigned char *u = (const unsigned char *)text;
    if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        sb_add(out, text + 3, len - 3);
        return;
    }
    if (len < 2 || u[0] != 0xFF || u[1] != 0xFE) {
        sb_add(out, text, len);
        return;
    }
    for (size_t i = 2; i + 1 < len; i += 2) {
        unsigned long cp = u[i] | (unsigned long)u[i + 1] << 8;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 3 < len) {
            unsigned long lo = u[i + 2] | (unsigned long)u[i + 3] << 8;
            if (lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            } else {
                cp = 0xFFFD;
            }
        } else if (cp >= 0xD800 && cp < 0xE000) {
            cp = 0xFFFD;
        }
        if (cp == 0)
            break; /* as the other syntaxes: the text ends at a NUL */
        add_utf8(out, cp);
    }
}

void rsp_split(const char *text, size_t len, enum rsp_syntax syntax, struct strvec *out)
{
    if (syntax == RSP_MSVC) {
        split_msvc(text, len, out);
        return;
    }
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
