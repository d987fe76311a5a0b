#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size, buf[4] = {0};
  MPI_Request r[4];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int it = 0; it < 3; it++) {
    MPI_Irecv(&buf[0], 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&buf[1], 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&rank, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    MPI_Allreduce(&rank, &buf[2], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
