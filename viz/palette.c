/*
 * palette — Okabe–Ito then Tol "muted": see palette.h.
 */
#include "viz/palette.h"

/* curses basic colours: 0 black 1 red 2 green 3 yellow 4 blue 5 magenta 6 cyan 7 white */
const struct plv_colour plv_palette[PLV_PALETTE_SIZE] = {
	{ "orange",         "#E69F00", "#FBECCC", 214, 3 },
	{ "sky blue",       "#56B4E9", "#DDF0FB", 74, 6 },
	{ "bluish green",   "#009E73", "#CCECE3", 36, 2 },
	{ "yellow",         "#F0E442", "#FCFAD9", 227, 3 },
	{ "blue",           "#0072B2", "#CCE3F0", 25, 4 },
	{ "vermillion",     "#D55E00", "#F7DFCC", 166, 1 },
	{ "reddish purple", "#CC79A7", "#F5E4ED", 175, 5 },
	{ "grey",           "#999999", "#EBEBEB", 246, 7 },
	{ "indigo",         "#332288", "#D6D3E7", 54, 4 },
	{ "cyan",           "#88CCEE", "#E7F5FC", 117, 6 },
	{ "teal",           "#44AA99", "#DAEEEB", 72, 2 },
	{ "green",          "#117733", "#CFE4D6", 28, 2 },
	{ "olive",          "#999933", "#EBEBD6", 100, 3 },
	{ "sand",           "#DDCC77", "#F8F5E4", 186, 3 },
	{ "rose",           "#CC6677", "#F5E0E4", 168, 1 },
	{ "wine",           "#882255", "#E7D3DD", 89, 5 },
};

/* Colour of device d (cycling). */
const struct plv_colour *
plv_device_colour(int d)
{
	if (d < 0)
		d = -d;
	return &plv_palette[d % PLV_PALETTE_SIZE];
}
