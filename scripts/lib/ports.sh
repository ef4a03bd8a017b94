# A free TCP port on 127.0.0.1, for the throwaway test servers
# (test-db-servers.sh, test-object-servers.sh, test-slurm.sh). The kernel
# picks it through python3 when there is one; otherwise a random high port.
free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    echo $((20000 + RANDOM % 20000))
  fi
}
