// ncursesw with wide-character functions. Why a shim: ncurses needs _XOPEN_SOURCE_EXTENDED
// (or NCURSES_WIDECHAR) before its header for the cchar_t API, and some of its macros
// (COLOR_PAIR, getmaxyx) are not imported by Swift.
#ifndef TRANSFERTOP_CNCURSES_SHIM_H
#define TRANSFERTOP_CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <ncursesw/curses.h>
#include <locale.h>

static inline int tt_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int tt_lines(void) { return LINES; }
static inline int tt_cols(void) { return COLS; }
static inline int tt_colors(void) { return COLORS; }
static inline int tt_color_pairs(void) { return COLOR_PAIRS; }
static inline WINDOW *_Nullable tt_stdscr(void) { return stdscr; }
static inline int tt_key_resize(void) { return KEY_RESIZE; }

static inline WINDOW *_Nullable tt_curscr(void) { return curscr; }

/// Whether terminfo knows terminal `name`: initscr() prints "Error opening terminal" and
/// exits the process for one it does not, so the monitor asks first. setupterm with an error
/// pointer returns instead of exiting; the TERMINAL it made is freed again. (Declared here
/// rather than through <term.h>, whose macros name common words; `struct term` is the type
/// term.h calls TERMINAL. These match a non-reentrant ncursesw, as Debian's is: a reentrant
/// build has no `cur_term` variable, and the link would say so.)
struct term;
extern int setupterm(const char *_Nullable term, int fd, int *_Nullable errret);
extern int del_curterm(struct term *_Nullable oterm);
extern struct term *_Nullable cur_term;
static inline int tt_terminal_known(const char *_Nonnull name) {
    int err = 0;
    if (setupterm(name, 1, &err) != 0 || err != 1) return 0;
    del_curterm(cur_term);
    return 1;
}

/// Off-screen tests: one cell of `win` read back without moving its cursor.
/// Copies the cell's characters (NUL-terminated, at most `n - 1`) into `text`, and its
/// attributes (colour bits removed) and pair; returns ncurses' wide-character mark: 0 for an
/// ordinary cell, 1 for the left half of a wide character, 2 or more for its right half,
/// -1 if the cell is outside the window.
static inline int tt_read_cell(WINDOW *_Nonnull win, int y, int x, wchar_t *_Nonnull text, int n,
                               attr_t *_Nonnull attrs, short *_Nonnull pair) {
    int oy = getcury(win), ox = getcurx(win);
    cchar_t c;
    int rc = mvwin_wch(win, y, x, &c);
    wmove(win, oy, ox);
    if (rc == ERR || n < 1) return -1;
    int i = 0;
    for (; i < n - 1 && i < CCHARW_MAX && c.chars[i] != 0; i++) text[i] = c.chars[i];
    text[i] = 0;
    *attrs = c.attr & A_ATTRIBUTES & ~A_COLOR;
    *pair = (short)PAIR_NUMBER(c.attr);
#if NCURSES_EXT_COLORS
    if (c.ext_color != 0) *pair = (short)c.ext_color;
#endif
    return (int)(c.attr & A_CHARTEXT);
}

/// Mouse: left-button presses and wheel notches, reported at once (no click
/// interval: a click would otherwise wait 166 ms to see whether it is a double click).
/// The BUTTON*_ macros are computed and not imported by Swift.
static inline void tt_mouse_on(void) {
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
}
static inline int tt_key_mouse(void) { return KEY_MOUSE; }
/// The pending mouse event: 1 left press, 2 wheel up, 3 wheel down, 0 anything else or none;
/// the cell in `x`, `y`.
static inline int tt_mouse_read(int *_Nonnull x, int *_Nonnull y) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    *x = e.x;
    *y = e.y;
    if (e.bstate & BUTTON1_PRESSED) return 1;
    if (e.bstate & BUTTON4_PRESSED) return 2;
    if (e.bstate & BUTTON5_PRESSED) return 3;
    return 0;
}

#endif
