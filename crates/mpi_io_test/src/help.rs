//! The usage text (`-help`), in our own words.

/// Printed by `-help` (to stdout, by rank 0).
pub const USAGE: &str = "\
mpi_io_test: time MPI-IO writes and reads with one of five data movements:
  N processes to N files, N processes to 1 file, N processes to M aggregators
  to M files or to 1 file, N processes to M files.

Options (# a number, % a string; sizes accept w b K M G KB MB GB suffixes):
  -type #            data movement 1..5 (required)
  -collective        collective write_at_all/read_at_all instead of independent calls
  -num_io \"# # ...\"  I/O processes (types 3/4; per -host entry) or files (type 5)
  -nobj #            objects per process (default 1)
  -strided #         1 = interleave the objects of all processes (types 2, 5)
  -size #            bytes per object, a multiple of 8 (required)
  -csize #           bytes per circular buffer (types 3/4; a multiple of -size * -nobj)
  -target %          data file name; %r rank, %h host, %p pid (default ./test_file.out)
  -targets %         file holding one target name per process/file (types 1, 3, 5)
  -deletefile        remove the data file(s) at the end
  -touch #           1 no touch (default), 2 file offset in each object, 3 once per page
  -barrier           MPI_Barrier before each write (types 1, 2, 5)
  -sync              MPI_File_sync before closing after the write
  -sleep #           seconds to sleep between write and read
  -bopen             MPI_Barrier before each file open
  -chkdata #         check 0 none, 1 first (default), 2 first two, 3 all elements on read
  -preallocate #     MPI_File_preallocate this many bytes after opening for write
  -ahead #           extra circular buffers, so that writes overlap receives (types 3/4)
  -host \"% % ...\"    hosts whose first -num_io processes aggregate (types 3/4)
  -lhosts            list every rank's host
  -dio               hints direct_read=true direct_write=true
  -hints % % ...     MPI-IO hints as key value pairs
  -op read|write     run only that phase (default both)
  -nofile            no file I/O: measure the message passing only (types 3/4)
  -norsend           aggregators do not send their own objects (types 3/4)
  -output %          timing results to this file (default stdout)
  -errout %          errors and warnings to this file (default stderr)
  -verbose           per-process times too
  -setup %           read options from a file first (one or more per line, # comments)
  -help              this text
";
