#include <mpi.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv) {
	int flag;
	MPI_Init(&argc, &argv);
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (int i = 0; i < 1000000; i++)
		MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	printf("%.1f ns per MPI_Iprobe\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e6);
	MPI_Finalize();
	return 0;
}
