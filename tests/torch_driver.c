/*
 * torch_driver.c - a PyTorch-like allocation history through
 * libhipcore-torch.so, for tests/torch-trace.sh: record it with hipsim
 * record, replay the trace, and the replay's memory figures must equal
 * what the plug-in saw live.
 *
 *   torch_driver [THREADS [STEPS [plain]]]
 *
 * Each thread runs STEPS "training steps" on a stream of its own: a
 * forward pass allocating activations of a few sizes, a backward pass
 * freeing them in reverse with gradient buffers in between, some tensors
 * used on a side stream (record_stream) or freed on the next thread's
 * stream, unless "plain" (held blocks count as in use in a replay until
 * their stream's fence, as PyTorch counts them allocated until its events
 * complete, but the plug-in's own figure drops at the free).  Prints the plug-in's figures of device 0 as one line of JSON.
 * The simulator backend unless HIPCORE_TORCH_BACKEND says otherwise.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/torch_plugin.h"

#define LAYERS 12

static struct torch_plugin P;
static int steps = 20;
static int threads = 1;
static int plain;

static void *stream_of(int t)
{
	return (void *)(uintptr_t)(0x7000 + 0x10 * t);
}

static void *side_stream(int t)
{
	return (void *)(uintptr_t)(0x9000 + 0x10 * t);
}

static void *run(void *arg)
{
	int t = (int)(intptr_t)arg;
	void *act[LAYERS], *grad;
	size_t act_size[LAYERS];
	void *s = stream_of(t);

	for (int step = 0; step < steps; step++) {
		void *batch = P.alloc(3 << 20, 0, s);

		if (!batch)
			return (void *)1;
		if (!plain && step % 4 == 0)
			P.record_stream(batch, side_stream(t));
		for (int l = 0; l < LAYERS; l++) {
			act_size[l] = ((size_t)(l % 3 + 1) << 20) + (size_t)(step % 5) * 4096 + 512 * l;
			act[l] = P.alloc((ssize_t)act_size[l], 0, s);
			if (!act[l])
				return (void *)1;
		}
		for (int l = LAYERS - 1; l >= 0; l--) {
			grad = P.alloc((ssize_t)act_size[l] / 2 + 256, 0, s);
			if (!grad)
				return (void *)1;
			P.free(grad, act_size[l] / 2 + 256, 0, s);
			/* one activation a step ends on the next thread's stream */
			P.free(act[l], act_size[l], 0,
			       !plain && l == step % LAYERS ? stream_of((t + 1) % threads) : s);
		}
		P.free(batch, 3 << 20, 0, s);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct hipcore_torch_stats st = { .struct_size = sizeof(st) };
	pthread_t th[16];
	int rc = 0;

	if (argc > 1)
		threads = atoi(argv[1]);
	if (argc > 2)
		steps = atoi(argv[2]);
	plain = argc > 3 && strcmp(argv[3], "plain") == 0;
	if (threads < 1 || threads > 16 || steps < 1) {
		fprintf(stderr, "usage: torch_driver [THREADS (1-16) [STEPS [plain]]]\n");
		return 2;
	}
	if (!getenv("HIPCORE_TORCH_BACKEND"))
		setenv("HIPCORE_TORCH_BACKEND", "sim", 1);
	if (torch_plugin_load(&P) != 0)
		return 2;
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, run, (void *)(intptr_t)t);
	for (int t = 0; t < threads; t++) {
		void *r;

		pthread_join(th[t], &r);
		rc |= r != NULL;
	}
	if (rc || P.stats(0, &st) != 0) {
		char msg[512];

		P.last_error(msg, sizeof(msg));
		fprintf(stderr, "torch_driver: %s\n", msg);
		return 1;
	}
	printf("{\"allocs\": %llu, \"frees\": %llu, \"peak_in_use_bytes\": %llu, "
	       "\"peak_reserved_bytes\": %llu, \"device_allocs\": %llu, \"streams\": %llu}\n",
	       (unsigned long long)st.allocs, (unsigned long long)st.frees,
	       (unsigned long long)st.peak_in_use, (unsigned long long)st.peak_reserved,
	       (unsigned long long)st.device_allocs, (unsigned long long)st.streams);
	return P.shutdown() == 0 ? 0 : 1;
}
