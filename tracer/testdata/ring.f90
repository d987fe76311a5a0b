! The end-to-end test's Fortran MPI program (apptrace/record_test.go): a ring, a neighbour
! exchange with Irecv/Isend and Waitall, an Allreduce and a split communicator's Allreduce.
program ring
  use mpi
  implicit none
  integer :: rank, nranks, ierr, right, left, it, half, s, buf(64), inb(64)
  integer :: req(4)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  buf = rank
  do it = 1, 3
    if (rank == 0) then
      call MPI_Send(buf, 16, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
      call MPI_Recv(inb, 16, MPI_INTEGER, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(inb, 16, MPI_INTEGER, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(buf, 16, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
    end if
    call MPI_Irecv(inb, 32, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(inb(33), 8, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Isend(buf, 32, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(buf, 8, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a,i0)', 'ring: sum ', s
end program ring
