/* The end-to-end test's MPI program (apptrace/record_test.go): a ring of blocking sends, a
 * neighbour exchange with Irecv/Isend and Waitall, a wildcard receive, a probe, a cancelled
 * receive, Allreduce and Bcast on MPI_COMM_WORLD, and an Allreduce and a ring on a split
 * communicator (even and odd ranks) whose tags repeat the world ring's. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, buf[64] = {0}, in[64], x, sum;
	MPI_Request req[4];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	for (int it = 0; it < 3; it++) {
		if (rank == 0) {
			MPI_Send(buf, 16, MPI_INT, right, 7, MPI_COMM_WORLD);
			MPI_Recv(in, 16, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(in, 16, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, 16, MPI_INT, right, 7, MPI_COMM_WORLD);
		}
		MPI_Irecv(in, 64, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(in + 32, 8, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
		MPI_Isend(buf, 64, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]);
		MPI_Isend(buf, 8, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
		MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
	}
	/* Rank 0 takes one message from each other rank in whatever order they come. */
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			MPI_Status st;
			int flag = 0;
			MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
			MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		}
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
	}
	/* A receive nobody sends to, cancelled. */
	MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &req[0]);
	MPI_Cancel(&req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(buf, 64, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	int hr, hs;
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hs);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
	if (hs > 1)
		MPI_Sendrecv(buf, 16, MPI_INT, (hr + 1) % hs, 7, in, 16, MPI_INT, (hr + hs - 1) % hs, 7, half, MPI_STATUS_IGNORE);
	MPI_Barrier(half);
	MPI_Comm_free(&half);
	MPI_Finalize();
	if (rank == 0)
		printf("ring: %d ranks, sum %d\n", size, sum);
	return 0;
}
