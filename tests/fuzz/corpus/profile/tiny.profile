name = tiny
total_memory = 1048576
alignment = 256
# comment
integrated = 1
