# cmake -DIN=FILE -DOUT=FILE.c -DNAME=SYMBOL -P embed.cmake: FILE's bytes as a C array
# (SYMBOL, SYMBOL_size), written under a temporary name and renamed.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," array "${hex}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}.tmp" "/* ${base}, embedded by embed.cmake */\n"
  "const unsigned char ${NAME}[] = {${array} 0};\n"
  "const unsigned long ${NAME}_size = ${bytes};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
