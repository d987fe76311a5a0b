! The end-to-end test's mpi_f08 program (cmd/lhsim TestGoalRecordF08): a ring of Irecv/Isend
! with Waitall and an Allreduce, through the Fortran 2008 bindings.
program f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, s, x
  type(MPI_Request) :: req(2)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  x = rank
  call MPI_Irecv(s, 1, MPI_INTEGER, mod(rank + nranks - 1, nranks), 3, MPI_COMM_WORLD, req(1))
  call MPI_Isend(x, 1, MPI_INTEGER, mod(rank + 1, nranks), 3, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  call MPI_Allreduce(x, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize()
end program f08
