"""Colour-vision deficiency simulation and CIEDE2000 colour difference, in numpy: what
the palette test measures the plots' colours with.

* sRGB (IEC 61966-2-1) ↔ linear RGB ↔ CIE XYZ (D65) ↔ CIELAB;
* dichromacy simulated with the Machado, Oliveira and Fernandes (2009) matrices at
  severity 1.0, applied to linear RGB (as colorspacious does);
* ΔE00 after Sharma, Wu and Dalal (2005), checked against their published test pairs.
"""

import numpy as np

#: Machado et al. (2009), Table 1, severity 1.0: linear RGB → linear RGB.
CVD_MATRICES = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
         [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
         [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
         [0.004733, 0.691367, 0.303900]]
    ),
}  # fmt: skip
_RGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
     [0.0193339, 0.1191920, 0.9503041]]
)  # fmt: skip
_WHITE = _RGB_TO_XYZ @ np.ones(3)


def hex_to_srgb(colour: str) -> np.ndarray:
    return np.array([int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)])


def srgb_to_linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(rgb: np.ndarray) -> np.ndarray:
    rgb = np.clip(rgb, 0.0, 1.0)
    return np.where(rgb <= 0.0031308, 12.92 * rgb, 1.055 * rgb ** (1 / 2.4) - 0.055)


def simulate(colour: str, deficiency: str) -> np.ndarray:
    """The sRGB colour a person with ``deficiency`` (a key of CVD_MATRICES) sees."""
    linear = srgb_to_linear(hex_to_srgb(colour))
    return linear_to_srgb(CVD_MATRICES[deficiency] @ linear)


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    xyz = _RGB_TO_XYZ @ srgb_to_linear(np.asarray(rgb, dtype=float)) / _WHITE
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e_2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference (kL = kC = kH = 1)."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360 if c2p else 0.0
    dLp, dCp = L2 - L1, c2p - c1p
    dhp = 0.0
    if c1p * c2p:
        dhp = h2p - h1p
        if dhp > 180:
            dhp -= 360
        elif dhp < -180:
            dhp += 360
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dhp / 2))
    Lbp, Cbp = (L1 + L2) / 2, (c1p + c2p) / 2
    hbp = h1p + h2p
    if c1p * c2p:
        if abs(h1p - h2p) > 180:
            hbp += 360 if hbp < 360 else -360
        hbp /= 2
    t = (
        1
        - 0.17 * np.cos(np.radians(hbp - 30))
        + 0.24 * np.cos(np.radians(2 * hbp))
        + 0.32 * np.cos(np.radians(3 * hbp + 6))
        - 0.20 * np.cos(np.radians(4 * hbp - 63))
    )
    d_theta = 30 * np.exp(-(((hbp - 275) / 25) ** 2))
    rc = 2 * np.sqrt(Cbp**7 / (Cbp**7 + 25**7))
    sl = 1 + 0.015 * (Lbp - 50) ** 2 / np.sqrt(20 + (Lbp - 50) ** 2)
    sc = 1 + 0.045 * Cbp
    sh = 1 + 0.015 * Cbp * t
    rt = -np.sin(np.radians(2 * d_theta)) * rc
    return float(
        np.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2 + rt * (dCp / sc) * (dHp / sh))
    )


def difference(colour1: str, colour2: str, deficiency: str = "") -> float:
    """ΔE00 between two hex colours, as seen with ``deficiency`` ("" for normal vision)."""
    if deficiency:
        s1, s2 = simulate(colour1, deficiency), simulate(colour2, deficiency)
    else:
        s1, s2 = hex_to_srgb(colour1), hex_to_srgb(colour2)
    return delta_e_2000(srgb_to_lab(s1), srgb_to_lab(s2))
