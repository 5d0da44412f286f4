# The Windows torch-extension jobs' toolchain (.github/workflows/windows-seat.yml), on a
# windows-latest runner: CUDA 13.0's compiler and the headers and libraries torch's CUDA
# headers include, from NVIDIA's network installer (silent, the named components only);
# torch 2.11.0+cu130 from download.pytorch.org; ninja and wheel from PyPI. CUDA_PATH_V13_0
# then names the toolkit for the action's CUDA step (ci/github/install-cuda.sh).
$ErrorActionPreference = 'Stop'
$cuda = '13.0'
$release = '13.0.0'
$url = "https://developer.download.nvidia.com/compute/cuda/$release/network_installers/cuda_${release}_windows_network.exe"
$installer = Join-Path $env:RUNNER_TEMP 'cuda_network.exe'
Invoke-WebRequest -Uri $url -OutFile $installer
$parts = 'nvcc', 'cudart', 'crt', 'nvvm', 'nvrtc_dev', 'cublas_dev', 'cusparse_dev', 'cusolver_dev',
    'curand_dev', 'cufft_dev', 'nvtx', 'thrust', 'visual_studio_integration' | ForEach-Object { "${_}_$cuda" }
$p = Start-Process -FilePath $installer -ArgumentList (@('-s') + $parts) -Wait -PassThru
if ($p.ExitCode) { throw "the CUDA $release installer exited with $($p.ExitCode)" }
$home_ = "$env:ProgramFiles\NVIDIA GPU Computing Toolkit\CUDA\v$cuda"
if (-not (Test-Path "$home_\bin\nvcc.exe")) { throw "no nvcc.exe under $home_ after the installer" }
Add-Content -Path $env:GITHUB_ENV -Value "CUDA_PATH_V13_0=$home_"
Add-Content -Path $env:GITHUB_ENV -Value "CUDA_PATH=$home_"
& "$home_\bin\nvcc.exe" --version
python -m pip install --disable-pip-version-check -q torch==2.11.0 --index-url https://download.pytorch.org/whl/cu130
if ($LASTEXITCODE) { throw 'pip could not install torch 2.11.0+cu130' }
python -m pip install --disable-pip-version-check -q ninja wheel setuptools numpy
if ($LASTEXITCODE) { throw 'pip could not install ninja, wheel, setuptools and numpy' }
