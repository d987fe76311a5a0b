/* The tracer's record shapes, each at least once, on 4 ranks (cmd/lhsim's
 * TestGoalRecordShapes): Waitsome, Testany, persistent requests with Startall, Mprobe/Mrecv,
 * Improbe/Imrecv, an Iprobe that finds its message, Sendrecv_replace, a cancel that fails (its
 * receive has matched) and one that takes effect, the v collectives and the others, Comm_dup,
 * Cart_create and Cart_sub, and collectives on them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, a[64] = {0}, b[64] = {0}, c[64] = {0}, flag, idx, out, ids[4];
	int counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6}, sc[4], sd[4];
	MPI_Request r[4];
	MPI_Message msg;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	MPI_Irecv(a, 8, MPI_INT, left, 10, MPI_COMM_WORLD, &r[0]);
	MPI_Irecv(b, 4, MPI_INT, right, 11, MPI_COMM_WORLD, &r[1]);
	MPI_Isend(c, 8, MPI_INT, right, 10, MPI_COMM_WORLD, &r[2]);
	MPI_Send(c, 4, MPI_INT, left, 11, MPI_COMM_WORLD);
	for (int left_ = 3; left_ > 0; left_ -= out)
		MPI_Waitsome(3, r, &out, ids, MPI_STATUSES_IGNORE);

	MPI_Irecv(a, 2, MPI_INT, left, 12, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(c, 2, MPI_INT, right, 12, MPI_COMM_WORLD, &r[1]);
	for (int done = 0; done < 2;) {
		MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE);
		if (flag && idx != MPI_UNDEFINED)
			done++;
	}

	MPI_Send_init(c, 2, MPI_INT, right, 13, MPI_COMM_WORLD, &r[2]);
	MPI_Recv_init(a, 2, MPI_INT, left, 13, MPI_COMM_WORLD, &r[3]);
	for (int it = 0; it < 2; it++) {
		MPI_Startall(2, &r[2]);
		MPI_Waitall(2, &r[2], MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&r[2]);
	MPI_Request_free(&r[3]);

	MPI_Send(c, 3, MPI_INT, right, 14, MPI_COMM_WORLD);
	MPI_Mprobe(MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, &msg, &st);
	MPI_Mrecv(a, 3, MPI_INT, &msg, MPI_STATUS_IGNORE);

	MPI_Isend(c, 5, MPI_INT, right, 15, MPI_COMM_WORLD, &r[0]);
	for (flag = 0; !flag;)
		MPI_Improbe(left, 15, MPI_COMM_WORLD, &flag, &msg, &st);
	MPI_Imrecv(a, 5, MPI_INT, &msg, &r[1]);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

	MPI_Send(c, 1, MPI_INT, right, 16, MPI_COMM_WORLD);
	for (flag = 0; !flag;)
		MPI_Iprobe(MPI_ANY_SOURCE, 16, MPI_COMM_WORLD, &flag, &st);
	MPI_Recv(a, 1, MPI_INT, st.MPI_SOURCE, 16, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

	MPI_Sendrecv_replace(a, 6, MPI_INT, right, 17, left, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

	/* A wildcard receive that has matched its message before MPI_Cancel (MPI_Request_get_status,
	 * which the tracer does not wrap, completes it without freeing it): the cancel fails. Then
	 * one nobody sends to: the cancel takes effect. The program checks both, as HPCC does not. */
	int cancelled[2];
	MPI_Irecv(a, 7, MPI_INT, MPI_ANY_SOURCE, 18, MPI_COMM_WORLD, &r[0]);
	MPI_Send(c, 7, MPI_INT, right, 18, MPI_COMM_WORLD);
	for (flag = 0; !flag;)
		MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE);
	MPI_Cancel(&r[0]);
	MPI_Wait(&r[0], &st);
	MPI_Test_cancelled(&st, &cancelled[0]);
	MPI_Irecv(a, 9, MPI_INT, MPI_ANY_SOURCE, 19, MPI_COMM_WORLD, &r[0]);
	MPI_Cancel(&r[0]);
	MPI_Wait(&r[0], &st);
	MPI_Test_cancelled(&st, &cancelled[1]);
	if (cancelled[0] || !cancelled[1]) {
		fprintf(stderr, "calls: rank %d: cancels took effect: %d %d, want 0 1\n", rank, cancelled[0], cancelled[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	for (int i = 0; i < size; i++) {
		sc[i] = (rank + i) % 3 + 1; /* what i sends to rank is what rank sends to i */
		sd[i] = 4 * i;
	}
	MPI_Alltoallv(c, sc, sd, MPI_INT, a, sc, sd, MPI_INT, MPI_COMM_WORLD);
	MPI_Gatherv(c, counts[rank], MPI_INT, a, counts, displs, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Scatterv(c, counts, displs, MPI_INT, a, counts[rank], MPI_INT, 2, MPI_COMM_WORLD);
	MPI_Allgatherv(c, counts[rank], MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD);
	MPI_Reduce_scatter(c, a, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce_scatter_block(c, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Scan(c, a, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Exscan(c, a, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Gather(c, 2, MPI_INT, a, 2, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Scatter(c, 2, MPI_INT, a, 2, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Allgather(c, 2, MPI_INT, a, 2, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoall(c, 2, MPI_INT, a, 2, MPI_INT, MPI_COMM_WORLD);
	MPI_Reduce(c, a, 16, MPI_INT, MPI_MAX, 3, MPI_COMM_WORLD);

	MPI_Comm dup, cart, row;
	int dims[2] = {2, 2}, periods[2] = {1, 1}, keep[2] = {0, 1};
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Cart_create(dup, 2, dims, periods, 0, &cart);
	MPI_Cart_sub(cart, keep, &row);
	MPI_Allreduce(c, a, 4, MPI_INT, MPI_SUM, row);
	MPI_Bcast(a, 4, MPI_INT, 1, row);
	MPI_Barrier(cart);
	MPI_Comm_free(&row);
	MPI_Comm_free(&cart);
	MPI_Comm_free(&dup);
	MPI_Finalize();
	if (rank == 0)
		printf("calls: done\n");
	return 0;
}
