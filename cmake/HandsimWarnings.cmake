# Warning flags shared by every handsim target.
function(handsim_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Woverloaded-virtual)
  if(HANDSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
