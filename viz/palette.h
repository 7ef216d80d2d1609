/*
 * palette — the device colours shared by the explorer and every export.
 *
 * A colour-blind-safe qualitative palette (Okabe & Ito, "Color Universal
 * Design", 2008), extended with Paul Tol's "muted" scheme for clusters with
 * more than eight devices; device d gets colour d mod PLV_PALETTE_SIZE.
 * Each entry carries its hex form for SVG/DOT and the nearest xterm-256
 * index for terminals; light fills for cluster backgrounds.
 *
 * Invariant: device colours never change between the TUI and the exports.
 */
#ifndef PLV_PALETTE_H
#define PLV_PALETTE_H

struct plv_colour {
	const char *name;
	const char *hex;	/* "#E69F00" */
	const char *fill;	/* a light tint of hex for backgrounds */
	int xterm256;		/* nearest xterm-256 index */
	int curses8;		/* fallback among the 8 basic curses colours */
};

#define PLV_PALETTE_SIZE 16
extern const struct plv_colour plv_palette[PLV_PALETTE_SIZE];

/* Colour of device d. */
const struct plv_colour *plv_device_colour(int d);

/* Colours for roles in pictures. */
#define PLV_CRITICAL_HEX "#D00000"
#define PLV_OOM_HEX "#B00020"
#define PLV_EDGE_HEX "#606060"

#endif
