"""DejaVu Sans metrics and glyph masks for the plots.

Written by scripts/make_plot_font.py; do not edit.
"""

SIZE = 11
SCALE = 2
MASK_HEIGHT = 44
BASELINE = 33
ADVANCES = {
    "0": 6.999,
    "1": 6.999,
    "2": 6.999,
    "3": 6.999,
    "4": 6.999,
    "5": 6.999,
    "6": 6.999,
    "7": 6.999,
    "8": 6.999,
    "9": 6.999,
    " ": 3.497,
    "!": 4.41,
    '"': 5.06,
    "#": 9.217,
    "$": 6.999,
    "%": 10.452,
    "&": 8.578,
    "'": 3.024,
    "(": 4.292,
    ")": 4.292,
    "*": 5.5,
    "+": 9.217,
    ",": 3.497,
    "-": 3.969,
    ".": 3.497,
    "/": 3.706,
    ":": 3.706,
    ";": 3.706,
    "<": 9.217,
    "=": 9.217,
    ">": 9.217,
    "?": 5.838,
    "@": 11.0,
    "A": 7.525,
    "B": 7.546,
    "C": 7.681,
    "D": 8.47,
    "E": 6.95,
    "F": 6.327,
    "G": 8.524,
    "H": 8.271,
    "I": 3.244,
    "J": 3.244,
    "K": 7.213,
    "L": 6.128,
    "M": 9.491,
    "N": 8.229,
    "O": 8.658,
    "P": 6.633,
    "Q": 8.658,
    "R": 7.643,
    "S": 6.982,
    "T": 6.719,
    "U": 8.051,
    "V": 7.525,
    "W": 10.876,
    "X": 7.536,
    "Y": 6.719,
    "Z": 7.536,
    "[": 4.292,
    "\\": 3.706,
    "]": 4.292,
    "^": 9.217,
    "_": 5.5,
    "`": 5.5,
    "a": 6.741,
    "b": 6.982,
    "c": 6.048,
    "d": 6.982,
    "e": 6.768,
    "f": 3.873,
    "g": 6.982,
    "h": 6.972,
    "i": 3.056,
    "j": 3.056,
    "k": 6.37,
    "l": 3.056,
    "m": 10.715,
    "n": 6.972,
    "o": 6.73,
    "p": 6.982,
    "q": 6.982,
    "r": 4.522,
    "s": 5.731,
    "t": 4.313,
    "u": 6.972,
    "v": 6.51,
    "w": 8.997,
    "x": 6.51,
    "y": 6.51,
    "z": 5.774,
    "{": 6.999,
    "|": 3.706,
    "}": 6.999,
    "~": 9.217,
    "κ": 6.483,
    "α": 7.251,
    "ρ": 6.982,
    "σ": 6.972,
    "Σ": 6.95,
    "–": 5.5,
    "—": 11.0,
    "·": 3.497,
    "×": 9.217,
    "≥": 9.217,
    "≤": 9.217,
    "±": 9.217,
    "…": 11.0,
    "°": 5.5,
    "’": 3.497,
    "“": 5.699,
    "”": 5.699,
    "→": 9.217,
}
INDEX = [
    ["0", 16],
    ["1", 16],
    ["2", 16],
    ["3", 16],
    ["4", 16],
    ["5", 16],
    ["6", 16],
    ["7", 16],
    ["8", 16],
    ["9", 16],
    [" ", 9],
    ["!", 11],
    ['"', 13],
    ["#", 21],
    ["$", 16],
    ["%", 23],
    ["&", 20],
    ["'", 9],
    ["(", 11],
    [")", 11],
    ["*", 13],
    ["+", 21],
    [",", 9],
    ["-", 10],
    [".", 9],
    ["/", 10],
    [":", 10],
    [";", 10],
    ["<", 21],
    ["=", 21],
    [">", 21],
    ["?", 14],
    ["@", 24],
    ["A", 18],
    ["B", 18],
    ["C", 18],
    ["D", 19],
    ["E", 16],
    ["F", 15],
    ["G", 20],
    ["H", 19],
    ["I", 9],
    ["J", 9],
    ["K", 17],
    ["L", 15],
    ["M", 21],
    ["N", 19],
    ["O", 20],
    ["P", 16],
    ["Q", 20],
    ["R", 18],
    ["S", 16],
    ["T", 16],
    ["U", 19],
    ["V", 18],
    ["W", 24],
    ["X", 18],
    ["Y", 16],
    ["Z", 18],
    ["[", 11],
    ["\\", 10],
    ["]", 11],
    ["^", 21],
    ["_", 13],
    ["`", 13],
    ["a", 16],
    ["b", 16],
    ["c", 15],
    ["d", 16],
    ["e", 16],
    ["f", 10],
    ["g", 16],
    ["h", 16],
    ["i", 9],
    ["j", 9],
    ["k", 15],
    ["l", 9],
    ["m", 24],
    ["n", 16],
    ["o", 16],
    ["p", 16],
    ["q", 16],
    ["r", 12],
    ["s", 14],
    ["t", 11],
    ["u", 16],
    ["v", 16],
    ["w", 20],
    ["x", 16],
    ["y", 16],
    ["z", 14],
    ["{", 16],
    ["|", 10],
    ["}", 16],
    ["~", 21],
    ["κ", 15],
    ["α", 17],
    ["ρ", 16],
    ["σ", 16],
    ["Σ", 16],
    ["–", 13],
    ["—", 24],
    ["·", 9],
    ["×", 21],
    ["≥", 21],
    ["≤", 21],
    ["±", 21],
    ["…", 24],
    ["°", 13],
    ["’", 9],
    ["“", 14],
    ["”", 14],
    ["→", 21],
]
MASKS = (
    "eNrtXQd0FcXXn5dCEpIAoVdpIkVBEBAU0BhEiooKiBVBlK4BqQIGsdGUjoqAUkIRo0AIRXh0aaGlkGASSDmpkOSkvZPkvLzz"
    "zu/b3ZndnV0in/4BJWF+5yQ7926ZebtT7ty59w4hAma8EZKS/MsQlbLMB9LSgC8Y/SpKhrq4vFaClyl9BKPlwwQcUMiOcNaU"
    "jw2caCcfA3GOXheF9+XDLOyn9CFMlg/zsJnS2xEkHz7R6Y/lw3v69e/Ih+cRTulIPCsf/MpKfdnRW+GH4F35MAbB9LpXkPsQ"
    "IW0LMID9nnkou3CpDHP/4vcKVGw8Mm1zLDBeo5dBhk6Pnv9q6z0cLSOsAtGdrVbrDcRarXsp3RsMxeLbVwK4Dlp9PL34z+0P"
    "M7qv9GWzzxTDOYLRGZ+3txCvObC1Vujq7mo3PNPwnC/UfpRhNZbyZL0CdORIlxCs50+vREwN7uwKxNXTSa9dSGmpk1X2IfVB"
    "7gdsRxJ31iUYVx/gnvwWEGlV8K1Cj1SrL06Lj18Z8Nz836+WJB0a7cXoaNivnCwEztHhmbz5uJtUSd604UvDbVNgNdCjcZwn"
    "m8ThEzU9xmo9ZEdYVZVeKNeexe7c1V6dPi2MamV43nDT890daMjT3mVUXlHxDgpd5eMTr/pI/91eysJshT8YjnBrZDEQ5kIb"
    "UuDWNBRc2fei+PKVCMuB6Rzpj1Ke9k649BumcVeXdQrhzvfAAsLR3gnxXjy9Ak8Rju6B1YSjvRPSqvP0CgwiPJ1VpnSeWYiz"
    "Kh16ltZ/4ghX4hBD+f85LVBRsY7VhiSNjlJqzFaNfst0/f9H7z2wZ+1Mb9PzE7oxenxgV58GA8KRVYe/q0qkUq11DEa8gW4F"
    "uPF0X6QYzu9EmHLs8pY8vauxEk5/Qud/znDrZTtymDxU58OfL+Un7ZheXXz5ygKXSTuuFp1c2IGR1XajNOaPfCxm9Akclj92"
    "x16UHIooD15+jsfr/MMeQ1mVAQvD1gW6UnogIvYqFfhobYUeBzuWtPLtn4iNVLgAfpaPDwOPyscXQfUMxIpRyvQLaKHQ32GR"
    "Ikdko5NCb6P6Cmm+qYwMPql4gVZgFEk9uF8oLnnSEoxyIPlMKeJaa6PLxss5YR+6iw9fGdBRH4+byfSDdLJjTUSGob/7A/N5"
    "sjXwEE9/jcMGaTUTw3n6FRR4GnvLb3myoQNdeXoGLhsKGY8PebIXSqsbu/xgg2hsQ2+eHol4C08fwyzx3SsPmi6/lJd7cVlj"
    "RnaxAdHRQBHTF1zAjzUJqbmR6XU9HVCm982Bakpvzep9CzhcWO1YJ3Vt7huwjt7/UDyuWq3Xctf5sAxqH5EbS+I0Vqc6ZF4c"
    "XLv2kIu0eyXuV4saKRNAm/MhWvOPqw1I0fNOxB5K70WgfOiHTKVleF3Hc4p+JIXm/5M6TAQUy8qzKyjuzvJ/YGN0fn7UT43F"
    "l68cqL3pSnHEhqdUsm06Ss6kwPEeJS3HsacGIYOK2bD9HAprycfF+Il1lb8oxydgV1Rei/CdQrcEXfAYjd8JrWcYJh8blDja"
    "yMffgAlMdXa1r+9DK1ACKqHW2aYMBgsioBbpiU92LAjwKDPqHwar6yQMp2j1JeTp9nKrCsYhdmKZNPOLLcUuX0YPOXDKlrBj"
    "kkV8eIH7GSF0/fA2kr/oKsYNdHGStrf31ORneFVN9gxqdevifGYdfuvcBO4CknIIuYTbILbuJGStVbxIgf8W3eXlkcEYaWAG"
    "yiqFr43rFCQYkvxyItd4e0IMIW72PUa5SJbAe3AdUG3wYJW+alBQUDS+DApKK5RS3KQz7U9CPOx7DY9sge8lgRoziHF6+Doh"
    "c9FdYzxvyOczNg2Qnu6MCwpahLNSKkC7+GEsJGSAaf17rPzD56O9gbnZIc0g/rhu/OHXw+UpyS+iAgnIw3jgLei++5KcQMFv"
    "DSj5OtKmHvh25Pw/2Tw3095Kud6NrjM2RpThfi+UNjU872ckffQ7R/sssQPFB2fq6+i+/cMTi5DXmS+P736cNZSvZhH8DOWN"
    "o3SzCT4KPdB5TTn1CPKCgy4ctAJ05dEycG0kYI//pTvfN5h+/6bAW78fgfse9XbnpG5mupDQnNpqbY9LemdKYYIHnamOUC+e"
    "jqcJ+VBRTfqkHNKesc0pzUbbKxaDy+2ampvsy5O1S1hCSDdeDF6NevLyz0TiejGW0+Q/hbCmXSKLGpMp8DeMBTYgtT9pWrTO"
    "WHCPTm1cCdmf6Ufa7szK+q0Ff+41vE3qZGeOGnM9gzNrqZF5gJCZsnp/oC7uE/JtcXNCNkJq9nXxg8Z9QlFyboSPge0eFV2F"
    "3PyQGeipTP2NWTa3sSWxNqE3sna2EnVN4K6g/oqY4vidH1blWNUTgfNxTrTheHNxuC4h1d5rwvHCVKteDtv4xsHQHwWtzTzv"
    "LGR1MLIaR9kP4oYittX0p9Kb6zkMtHyPLJkaxmzSXpZ1bpZlyGhLyBo8r/DmUXu2BRKzRsFVunQShBWs5Jmb1Kn4C0iindQ0"
    "IFRtlUdw6Qk5+81AobpOXVsaKlMPn3Rg30rcUK3rSL8fLxYeWeJPLNuQ0lRUnf8Kidn/ILFlh3hh/zE6OL9RkycLamqdgrpE"
    "Tw5CtQjtiKMq81N8qiaPor+azIVqLerOlpBkKQSqQoZU0bkkn64tyTiu6sfl7kB7bkcc08r4BzQZ4G18riZdL17XHtfZOV98"
    "yvLhnXVCS0/GGxq74E8XNf29PlZ041arc6DWB7JX15cu1b/RbKxSkxN0I+WZ+gr2Yt03Y7f+hDyoclRX/SMvkwQ7Vnlyrqvr"
    "6+MwTi3u9dNiXeT20BjqwqgfI+TpaLOiWVUkosrsIrlB9roQ/QbeuHyBWuS4jJYEgdGsmlSdfBVXJyuiiMeHaT88jId/SPtQ"
    "kvLrH++lPK3X8frmfGTB2VpHvHmB/wavBdW4mRmijzx3izmHGfaeUI51VOGbR+N/uUi3YArcD2jk/zhNjEc0TXyAizSxVrUh"
    "S4+npottjYaXAncUG3dIUExRMuWeIFa8kQqHccGjaWI91poSAkYsVnW+lpQUJsF316YNX6EvS0XnVqGJNprF6nS8xlInSthE"
    "r7UzTDs5WjvJln0aaCdHayfDnOxktRJ1FvSa5h8TrCnRJk8WH+r2oI0qXOpl60//8/P0e8t7ssDt4U6/XU244J6iiRe6fKEJ"
    "GELCELgZLn2rmVkdF6Uap0qk/rQowL6Lu9Jn+O8O2MNG6I4Prv02FaFs33t+3H2js+C0jqtpfLw0J9vub9Yr9dpUCKR809PE"
    "9xoaUgwkft3ddHn14WF2IGFBFxO/9hir0zTPU9Bw0klhoC5Q+VGuwmOOlcc/1g2We/stNCsCApUSvWuX1+Lsoa97mpmj0oCC"
    "1QGm0czSc2mqNJp91dZ0tcV/ZQYQPqmuie/a59tcOPaYB+iGM4pMLa7uRNkJLHyabv9Te6zVAUTO1iPL+L23vwyI+7KDqbtI"
    "/qab6fnfrvJ3ER/7vsXI3bHFKbt7UmIEHAmnpHrTj040Vki9v/dqXFEoaiHTFOAEvJ6w6Y2hSgS+1og6hxCsufB6xyLEVTs1"
    "Foe4FvSztigpYx9e4qhF1p5/We5vrX056rTB49dICQj8c3gHvD9jWHdTl+76+oEyGtBjljfHrnUE4SMerePR7q2tznQ9tpHf"
    "lbxBarpLjGOwmt6TzTklVNtb+qja+GQfXd8hU/pUJR/3J7Wzqa7NkijbPLeNlXLNGVmwjJCpUFaBH5dDRFrOFAc2qTuhEBK/"
    "E5QcxsjWJH1owKiZMr8h1Q3McUrt8SMozgNdZH57KGEcg+TQIpM4/pvUuX4MmhPyLI1kOUPiu1/cp5SnG8ZK+Z4tDnygzugC"
    "rOywp5DaxFmSrlRh5cQ3BcBR1WxspOK87ztkxqwnSeCwp7RXatkvP6kc1IzBcjavrDrtF+4T1DqG7GX9/V/85NcCnOLnma6v"
    "HnHK+ZbsGuZmnjs+7e//tI+oz/cJLMnINAYHeU6qF4MMnGCkYKehjpTiSaeD9zCeACsJM7jqhEtjylA+LE8nFHgT9xz00jhL"
    "sYbIVjbaMgU7+5h8JYX6hGjNWSkMacpEK1mNSNXQqU+0qNnoLOZFTchmzFN+ZDwN70pkd6FMWXp7Bja1jrtmK7FU1nMxCpdA"
    "+Pjcz4hWKlP6H9Or6ZwIq/VwjjRDqKFxlNHj+QLZpYzncNVP5byOCBMnCLt4jmvHBY6cjobcgX0tDblb45zYa8q9ge65rz7Z"
    "NUt2m+A55KQaTk675roqRDJO/WCUNjblpXnJ0fLkRgY/JWrGfY/nVh/OyNo/Twvv6rlEqhvJZ0uB0zSIq+txpI2Spuruj31V"
    "8IjCmYgItTvvpFjBNy5i0as0TEScKZ9l2GvihOqWnQwhxrhERF683WfiDMefJo7fDWP4IiIvzp5TZ1j9m9Fh8RhiZVc6t8e2"
    "gv4K4ja1CNcvnrYDSVq42oZjN8aj5OQEb1ExBEwDiDP56MZZdYihD7/sAAo/9TV02R5dV5XihMXUZ7cswkQTi0xDoplVpRT1"
    "TCwSg4FmVigzUedYu5g9Pce6jDFmVhmd53CsEUAjI+uBbFV0YizLB3m44MH97DOJJSic42t6OTOFGe59JlHJeJ6TMmQ8Ya5y"
    "d4g2xq3X8ttL7lJ+6u8Zbvq9IiRLRa6uw41ft295H//2SIoQYzX6jNz5jG5FCty/6LnqQFL+ybXv+2oc9y+l2V/2H3mAbZ6q"
    "JjqMrEBZNH7g9QOXNJ1PlDY/ZrZWjfJxU6j6iabYzOVL93KUUSrfD1VaAJ1g/MJ4k5VG4q+kv+TuTWO8YWzNhefVzEEPM49M"
    "x3lvM88zCQl03aRFgRYN4IFtQE6U9UQJEKyva/Ze9XtS0eng6Q+KaiPwt8YRtZs9oSow/wuWjpFmcSXvvyzXTSyBfwtRqo7/"
    "HkmIXuK/SsSoJgQ3QEfx+qALpq5LWfSofDUMVNrhZ8TX+nfrRLN4HPLmGG3SEerBXdEpG1vcuFt6FOAHC/eMPsX4hm/0r9j5"
    "rbyisQOGRWV5rPjBWI7dLBax/owxcL5m7EkMHKUcgXAOM/4WjsN+i85Rf63G0Won/xyBii0DVR5SlZ4aGeUrMS0QMHam6raI"
    "K4FLGjObGly4Z2vMKJxh8U5elVIXVeY4phfahdE6M+CUQ1ac13Ec76vfHjBWMVqagvf76hn1rlEqb2cbZfPmmWQL2pCu2EQM"
    "zH5YJM3KnzUyXTIyPLKTLUYm+Qpr5DirRmYbqfo3NzMlwV420jAxKf4HpoDA3255Q2nqHFtwkFlxrmZWNpt4aqwoTEOau4kV"
    "sB2TzKzWjuvexmf1JusUZb+B1bhUDmBlYJGl8uYjRlZNW2k9E4t8ju/NrOo5Zc1NLDINwWaWZ6r0w4wsMlZbetFYrokaS0Dg"
    "7+DdTecK43Z8ypmHVt8OOM7mAbGPqiyPaOQO9SKWzidgVy0tZiOZ7tPrth0salaTYrpnuzzjLGHbIExGmmb3/j0LGr5c3aOd"
    "yMG3rrIBUbf86AOnMgEK4exDnmX7A83jdMVj5BjL8m/gdMULmaFfzVxt/xSfJFUlMRXxrMybtTBzHjG48ar02x47CXvnm95B"
    "QqdbviuB+2kAAgpjglvwU4bzDtj78TOKutuR6svPMGoUM1cSdcZxnoVHVelkNmAxujvQTaf9BkXjuAvh5ySxrbj8d303zq38"
    "Gc0dpwUE7th4QcoZL0aWM14cKGe8SPib4wXlGceLtFuNF48xlnsC3lTHi6Osec1EkY82XpySDWtdF0K9THkHjqRjMTYUTzO+"
    "KxuQ28T8DuvEIfgmh8Mm13BzIJMHg4LaijpXuUeUba2MaihpTCkbaOyFa2/DDT9jv+xbpIVTVXvqc5q3hspJ1FbhGKcTnE14"
    "jt/LUWyfen2EKXvVUJ5D+UB+K0N5XHqm6QFc2ZO7QfNbVHNfhQgXI6dugbpZtDa6fII/XY0c73R9By2ByocG30XkFl4Om+tP"
    "yaelLvLasSQnaOisGin4SR4nPJ+ZqtCDcd7ggTgb2wxPexsZhsjyvqkoC36pvs7odEjZ3TxYd1Jq8c7ys4DTsAtRq02A0Rni"
    "FLfKImMZHSg0m5qj1BFp5nblwU1+gDOADhS4cehQElBEK7HXiHXhDsfFDe+LWUNlgCEISBAhyppBNAo4Q1HZQ8G4N2dlowXu"
    "K6jWA0R2Huh4T7PqQt0l1+IEDfxhsYOpdeoBzO7vMvOnIJ2Rz54wT91v+gtttbyOzTlVkk0so2xlzdR3Md4B26WzRdClJkI6"
    "7o3NL4o72FPUFAGK9VhnkhuegU21UnWn3smWeC1ExxDqwUxmqZsqklAqXMie0M1pXXQwT2iyB3OU4zRNgzkUyRYqQavSvnuO"
    "4uTTXfe6JkuV2eUqLoBsJ7lIngWc9zYJx7vkDYNx7wRJ0N9r8AKvXooeRk9xEowkozd5OR7nN3ulCwjcFbSE04c1EaZLHYBU"
    "+ZCKAQq5G8x9egENA7weC+SDS/5xWyiT/RW91Eickg9d8fnBfLmF+ThoXJAWNIMpeG6OkkF/+ng1g1CHT4CSwXxspPyf5Axc"
    "8k8RT/tuIntvs4b6rpxBV3nx8LiUgfR4Zm7SXM5gijxIzZMy6Kc+nmawSw4/NEDKYJ4e3+BHLHDJv6AUcTc5oURRYZLbSSWg"
    "CSFn830drC8hcgwj5yc09slizNIfT8g1XKeD5MtSgtsxbx1wmerJNBcaloG8pauMKIiw/wK3iQDkNFJrNNP5rmaJAdopnySl"
    "BlZP1+u5dF9d7h4Za6QhaQDyG3EjVxLGc/fQ+8DfQ5TG6TQGd+ynG9lTVEvGauTxF21AqJTf7/w9uXXl67T7aqYryuIAFKgj"
    "52a2/Zx230u4Xld9vnJfzeuaSo27T6Cy4XdNKHvUbm8rCX25bK+yKpHUsnc4MvzocHXOhd0hW5H1cNrZ4oB0x9vEM0G3A34H"
    "uQ2Wq1dTgfIiyrilBOkOfMwXYgquuQidgsDdwRFOa0ZDty/V4us6+Y5TxnRcf8DA6O1wGHWzD+RgioFR9QJ+Nj7kZ0RVNTAm"
    "IaelgfGUw9nbwGh4nTekl+BxxjStIRsRZdTjjke+8andy5wDDAyXDOTrwYTl8OFuBiVibVE77gE0lj/FZJbMCQp6kiUT9Avu"
    "3SRXXu1X3PfQ9nrh9n/prk1pLCna6cXc6VXaaXUbGbIKaiz+vviKparkRuu6D3V7F33Ll2ol2tgWUu5pba9MbecY4h/URnyz"
    "v8AVPZzCB0Gb1KQc+e+eT3Ll5X6FQEXHi2X4vYqJ90IZbmCHMfpqQInj3cbR+NWV59ls/aTZ6Cls1bk9bTnK1h6eodiqyuHd"
    "ChOZztdlAzaIjWkFBO4ltNbhyRsGdCODdNQU7+kmuO/DQJ2qdiG7mU41SjrJLRO1z10lXpfAvYTei46mlsTv1GydTyP/4jk7"
    "HGr800GyHF/leVusq+G2DXhSnVv0emdGUJBVdcF/LpZ1G1Qd16bQNj2guSv5nOkiZrLjZnZcSy0oG+QzehZOViWkxXEwukEm"
    "UpbvdhQFq7qMBmsSnPb1LYNMug2BCgqU3TY9cm9uxJJaGr0gP3j+flxjmxUA+bLJ/nQcU2ll1muJYUppsOi5QWw2DHgpx7fZ"
    "5AaoyuhfTdcvZDQN4P4nm1dL+b0oDQnfqLYPKNuC0ytSkNROpT2mZCBiaS3x6e87uLwVHFl0aQ0LUdP2MpwJVus1tmB3DL8p"
    "a3A03OgQxPLzsYW8gZYcie4tntyhbR6gYL6m2FHQCVnexpt3NNQzIu3SYT8wd6VaDFLj+8gcpPwg4uhUeLipsWX/MV1nWWT2"
    "nmEa/WgywuZtLpqr0meVyPs9bIweiDPKcTmjv0agcuzO6F1MPK7D6FATvdR0/bMIV44r1PxOYa4kfQyxaeVJReLys9iol3d5"
    "JNI+8jL9HoH7FsO2XU3/RXNnqxkK55XzZTjCFrvWY2VtifsjG8K7s7HaI8WujP2fq6txv1JT21/1ubDiS/QbtgQxKDa5X5lk"
    "0fYIdzEJyyuU6P2NZ1G6aRySgz//9Fd7GrvAY+65dGfZ6SXtxZe7y+izK4lKcJ2cODI3SLZQma3tj/Id89QKoh97g7yMcRa/"
    "BQW9InNXa+Yvdy8lUKHRYNlFftzsnCqNm8GF2rh5Thk3nyw0jZtL79C42YeNm8vU/M4o4+agIq08aWzczFLLu/yiNG62UR2Y"
    "GcZiM+s3le7w0Uy2xQIZXLJ7zsI9zjJ15a996JFE2/HFrcSHrzRz6SG7bmQcaK/Rc5B1shi2NurcuVAaAH22UzNjmVYGvmZI"
    "UWlqkWunvuoETspPY1Yhan53ixa4Q8iCjykxNajK/3vN3UuIb3EPfAuqRLA47WwShkgqLF3AB0qiJGKSWNS9C934/0C6b8Fh"
    "P430tSLYXTtb/xLzuFLI1omlWlxc2J/IydHd/oASPvoaHHuQovumw+4egszWOimv6mc+zBXDsgI3OvKlCkJuR77MgcjtKr72"
    "7SKTNcx7JSEgcPc6xrf3ZMct8CVk2NHC+EVuGv8zJIc7cNJzG65EQgs8BOS9QEjjGFyMe1SaJhWpPqegtotjAUXLvVZ1omHy"
    "67O4rpAz1K2x4HSh8yw6TxrPNqZT+7HuLNbHf84XELhL7U7MCwUqLnxn7s+NXKOJtgFZsJ1KBH6kpPsVLJNmVE+lMx//Ybii"
    "9PfjcEGhF7PFVx84PKhejq2+plNbgF1q4DxGf8PWA3zhcKf9c5wLPdJQBHVvYK50aJOGj+h9zxXBumD9Dfyszp9a7IwryQwf"
    "Jz6cAOvPKrSNy+3qJQUqOCqHPYHbbdIC/05f+ebOVHjS9BfIOHzBi80FB+qaremclqsll3Yrtw+6nbRARYHflxcLbpxcRZ2o"
    "68UjftOCkEQ6ws1jFYYOf5vZsEoxGUmzm2qU5zEARz5WI9O4vjD9CFA6Sr+88QclpU2523fQOLFTlUXUGglURXEOez/7IqwQ"
    "XyuX9Jl/tMwev6OP+ET/Cgpo5/FXydHMFKg+IV2CSvFZUFCQz9+47W8kU6EGRSan9Z2BZyJnE8ui6g8sY4HKgmYsfoQnCu4q"
    "7cXoGkhWjg8xmuSW+dBejNHr8b00yR1ZrNKPlKLoZA6+V2nS+VAW4kdW1WiB+xhtkEFXFl0yaGSA4yzG0wCmKx/FpphbFRGf"
    "EG+bsjdcjdLSGvQJmzBRUbWoYbD7KBX2lLbyaEnGY3I2mkXl51hCFmgme3JwuWyPDHDRBg5jNQ10xzBS6jPHc7S3DWrmAgJ3"
    "HJYCu7wU+gLQX65t9huyVu8XZYPiJVCisL+ArUSp9Euk/xGZmReUU6Nog4qSw/5u3oK60ilQ07o0iXgL772Pt6VTzGb4R7wj"
    "/bVogZ/I22rArWHYQNKvEnI1XTrFdJT1kN5G3lvkW7RLRz1WxEislMMlDpEOEWqxl6JUlj/8pMMSlfcy6AbLZ/XdEIi3E/Pl"
    "43w4xYqvwD/EKhyw0Oq7m8opEYqyfATiWZf8YKGjB2lnK9UcUl9FWpNYcLrwH5BH2w+DVxLSfTm6h4PtXUBRKwXLkVFPa50H"
    "pLFjNfarqvZZCHcjnjEsgqp0c14z6fCwza5sNV4rjW1L8j4SfcXXu+/R0plF9zZ3y6LBbXex6LFvsrib/Zju8hheodXtirJn"
    "fTukMgFmorLq9L3mz1etsLgWqVZsr6+3kOnSRVu0LNvhmusVPK2X4SCWIJYr02CTfOOShkJDrLiVMEQdqJIBg5/JeNYUFbQI"
    "CoWN2ySwNwrDOonvfo/jhOqftFoReKlvUiaW61fMQKK+Fv68s0CPndmhyPGsrp1KxRhdUI7UJQHishd7da+mbxCpD/4jkKlH"
    "j/VyIITmLws8PjCUTKBCwW289VqZv06PQcmhr5rptJWPeyIhHo0MtNn+wkzn6govGQ1QxhsQe6zmh3l/qQ7N5uyem321H5l9"
    "DY8by2J6a/WX7ZmnIQu1/lH5YtDUQP9u+r2jYdv1RbO/fl8C5aGzFh+4sqQafDJQfNY7BP+ya9bxbnw7P1Rqco8chDAD3cTU"
    "7msj6Za0HzINtCuM/RD5FSsNHhZVZkmdD9eu+2di75dcu//TuMOfO2C4vZZqB/c3y9dMn5Sz37uLO/lFaDH/PpT35SrqjcB/"
    "KSh4sMRzexNtJ9cMletjl9ON1Rl2cXS4E8i2WiMQV40yN3woNRHPLivSgIRZXuzuquJNCtwbKFCWWQOKcrvrZL/SrA762YH2"
    "9Fb6xUMcV5vr934MtOMehTy2K7OMfJyoF4fR+tmmpEuZ7WE+348R48mRlhPq5tC0VE3ymFKKktL4kNdYfDEBfir1zfn8Y6OI"
    "ayqTjAYXIDkGmPksPqciSTYmENLNXrAFVLszle5f8SPU7dJW0QB+/UG1/YSE4Q06SVMDiIdB8Rx01aKYrKL2zH1RyBjTqVJs"
    "B+g+U4S0KJFN83qiWHNBnAScWVPkfDEfK1hAwUGnsvL2BZChpSLyu4AZT1gTinU7aPKmw2AH3bLMaAe9yGQHfd5kB50j7KAF"
    "/k08czChhKpDn6cKKxxc8FOmStfIUbrFlml0KzsSiFjmN3JeoZdrfijUKX+37oeirJZxfiiKgn+x5ofiVMSJCZofylWFXzNO"
    "9UMZwdpPuOKHYtdWE9yny34zHcWHqxyI1rTx1LrmHHLZPj40FmQnm/NFww19y0qM2wC/hTzD9vRkJpKNO7mtRrTBuMYlGSt4"
    "+iNk8UriJ+xOPtJkrTSlSmo3H8QBPpTaHKTxGlx/p6MH/+zzyGG/Z7jp9waJjy9AyIy5FMoGwJmsbmSK9yIgcGdaFgdDI+Mg"
    "2pvA3cO4YKZaW68uz63nNokXEPgf0UjbX7aTvvy2B8uoyULXPN0EvW4M3d6qe4HzTU60jcAWF9KryDGEf2qN8wh5odhuWj+u"
    "dhoo7WcuwfvAGS8Tbxhsx3HIaIj7rrOgu8d+nK7G8cYgu7M0nwvFeV06D0SWoqhw24IITayerGq1LRsu6dYQ2k0WP1ETBO4x"
    "TB3T6GbmTuD8l71MK+N+r6+XJJLs4GGmwDAu3T8944Tzj0+6mkIY1hvxc54kslQ3MbflGra6pbej9OCUdoaMkLpmcDVDkRzH"
    "Z3U2ZvHTprf+5qZaX1p5VNeeKXbfFagI8BqwzNiOSNNxoUWGSusesDAKsFunPKy1tZHbpQaYtpZvR6sA58nZj1vM7d3xx+wu"
    "lnLau+l22mBPSw3WflDPSG3aW3PLa0du/vMjaou2KVD5EIJmd5C5zVDnmV3CHKVVZOGEcqxzB3P/zPr/u8PPMbTNOrcop4CA"
    "QIXDG1ZFw9PIalXmAWutb1D+dFySDw+C+mpdUsP+/BVf4D6AJfBswdlJbFVxmmP54BWOCZQIl72dlp5jxCLp3+IzrMLkdySd"
    "CiayByyQxM/PdF3N49XES60A6AJQLVZPFFPryiksvhIJtVH1l1v+QvGeKi42XCOkB5jatL3scXjazgzTwzCUvISDlGgo2yPu"
    "UD9+M3kUCFMDinj6+3uRDv4txdsU+Av4y2ECo1WX6wA4XUkMWIS3QKwnPnbWnZAQR0vSV7WftdxYR8hX6qkq/rUJeaSDeJsC"
    "9xUeKme6Xj81tsHN3O8QW/8W3F/5Ob0DMYrKLctoaVB007T+5bLCnn+HV6+k6KmbM3/pKfEBy8f/AYEg1l4="
)
