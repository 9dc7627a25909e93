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

#endif
