from desiq.cli import main

main()
