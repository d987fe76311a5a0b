/*
 * The unexpected-queue search of the paper's measurement (section 5.1.2) as C: walk the queue
 * of 64-byte entries from its head, comparing each entry's rank, tag, communicator and the
 * searched datum, until an entry matches on all four. The paper compiled its loop with gcc
 * 3.3.5 and -Wall only (5.1.1), so at -O0.
 *
 * lhsim does not run this code: its host model charges the instructions gcc makes of it.
 * experiment/searchloop.go holds those counts; TestSearchLoopCounts compiles this file with
 * gcc -m32 at -O0 and -O2, disassembles it with objdump and counts them again, so the model
 * cannot drift from the compiled loop. No headers: it compiles with the compiler alone.
 */

struct lh_entry {
	int rank;
	int tag;
	int comm;
	int datum;
	char body[48];
};

int search_queue(const struct lh_entry *q, int n, int rank, int tag, int comm, int datum)
{
	int i;

	for (i = 0; i < n; i++) {
		if (q[i].rank == rank && q[i].tag == tag && q[i].comm == comm && q[i].datum == datum)
			return i;
	}
	return -1;
}
