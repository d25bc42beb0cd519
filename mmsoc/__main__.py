from mmsoc.cli import main

main()
