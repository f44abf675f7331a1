/*
 * png_probe.c - what tests/hipsim-outputs.sh needs to know of a PNG that
 * rsvg-convert rendered from hipsim's SVG plot (libpng's simplified API):
 *
 *   png_probe FILE size
 *       prints "WIDTH HEIGHT"
 *   png_probe FILE top RRGGBB X0 Y0 X1 Y1
 *       prints the smallest y in the box [X0, X1] x [Y0, Y1] of a pixel
 *       within 24 of colour RRGGBB in each channel, or -1 when none
 *   png_probe FILE margin N
 *       prints "blank" when every pixel within N of the image's edges is
 *       white, else "ink X Y" for the first that is not
 *
 * Exit status: 0, 2 for bad arguments or a file libpng cannot read.
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static png_image image;
static unsigned char *rgba;

static int load(const char *path)
{
	memset(&image, 0, sizeof(image));
	image.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&image, path)) {
		fprintf(stderr, "png_probe: %s: %s\n", path, image.message);
		return -1;
	}
	image.format = PNG_FORMAT_RGBA;
	rgba = malloc(PNG_IMAGE_SIZE(image));
	if (!rgba || !png_image_finish_read(&image, NULL, rgba, 0, NULL)) {
		fprintf(stderr, "png_probe: %s: %s\n", path, rgba ? image.message : "out of memory");
		png_image_free(&image);
		return -1;
	}
	return 0;
}

static const unsigned char *pixel(unsigned x, unsigned y)
{
	return rgba + 4 * ((size_t)y * image.width + x);
}

static int near(const unsigned char *p, unsigned rgb)
{
	for (int c = 0; c < 3; c++) {
		int want = (int)(rgb >> (16 - 8 * c)) & 0xff;

		if (abs((int)p[c] - want) > 24)
			return 0;
	}
	return p[3] > 200;
}

int main(int argc, char **argv)
{
	if (argc < 3 || load(argv[1]) != 0)
		return 2;
	if (strcmp(argv[2], "size") == 0) {
		printf("%u %u\n", image.width, image.height);
	} else if (strcmp(argv[2], "top") == 0 && argc == 8) {
		unsigned rgb = (unsigned)strtoul(argv[3], NULL, 16);
		unsigned x0 = (unsigned)atoi(argv[4]), y0 = (unsigned)atoi(argv[5]);
		unsigned x1 = (unsigned)atoi(argv[6]), y1 = (unsigned)atoi(argv[7]);
		long top = -1;

		for (unsigned y = y0; y <= y1 && y < image.height && top < 0; y++)
			for (unsigned x = x0; x <= x1 && x < image.width; x++)
				if (near(pixel(x, y), rgb)) {
					top = y;
					break;
				}
		printf("%ld\n", top);
	} else if (strcmp(argv[2], "margin") == 0 && argc == 4) {
		unsigned n = (unsigned)atoi(argv[3]);

		for (unsigned y = 0; y < image.height; y++)
			for (unsigned x = 0; x < image.width; x++) {
				const unsigned char *p = pixel(x, y);

				if (x >= n && y >= n && x + n < image.width && y + n < image.height)
					continue;
				if (p[0] < 250 || p[1] < 250 || p[2] < 250) {
					printf("ink %u %u\n", x, y);
					goto done;
				}
			}
		printf("blank\n");
	} else {
		fprintf(stderr, "png_probe: unknown request '%s'\n", argv[2]);
		return 2;
	}
done:
	free(rgba);
	return 0;
}
