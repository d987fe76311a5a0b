/* The tracer's cost per call (docs/apps.md): CPU ns per MPI_Send to MPI_PROC_NULL (a call the
 * tracer records) and per MPI_Iprobe that finds nothing (a poll, which it only counts), a
 * million of each on one rank. Run it with and without the tracer preloaded. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	int flag, x = 0;
	MPI_Init(&argc, &argv);
	double a = now_ns();
	for (int i = 0; i < 1000000; i++)
		MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
	double b = now_ns();
	for (int i = 0; i < 1000000; i++)
		MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	double c = now_ns();
	printf("%.1f ns per MPI_Send to MPI_PROC_NULL, %.1f ns per MPI_Iprobe that found nothing\n", (b - a) / 1e6, (c - b) / 1e6);
	MPI_Finalize();
	return 0;
}
